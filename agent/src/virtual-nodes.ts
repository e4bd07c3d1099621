import type { Node } from './kube-types.js';

/**
 * Virtual-kubelet nodes (AKS virtual nodes / ACI and similar) advertise placeholder capacity such as 10,000
 * cores and 4 TiB. Posting them makes every cluster total in the web client drop to about 0 %, they have no
 * kubelet stats summary, and their allocatable is no basis for an estimate, so the agent skips them.
 */
export function isVirtualNode(node: Node): boolean {
  if (node.metadata?.labels?.['type'] === 'virtual-kubelet') return true;
  return (node.spec?.taints ?? []).some((taint) => taint.key === 'virtual-kubelet.io/provider');
}
