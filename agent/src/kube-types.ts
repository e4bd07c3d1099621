/**
 * The slices of Kubernetes JSON the agent reads, as the API server sends them (timestamps are strings).
 * The client library's generated models are not used because the agent talks to the API directly.
 */
export interface ObjectMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion?: string;
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

/** ReplicaSets (apps/v1) and Jobs (batch/v1): only who controls them is read. */
export interface OwnedObject {
  metadata?: ObjectMeta;
}

/** The parts of a PersistentVolume that say which Azure disk backs which claim. */
export interface PersistentVolume {
  metadata?: ObjectMeta;
  spec?: {
    claimRef?: { namespace?: string; name?: string };
    csi?: { driver?: string; volumeHandle?: string };
    azureDisk?: { diskName?: string; diskURI?: string };
  };
}

export interface ListResponse<T> {
  metadata?: { continue?: string; resourceVersion?: string };
  items?: T[];
}

export type ResourceList = Record<string, string>;

export interface Container {
  name: string;
  restartPolicy?: string;
  resources?: { limits?: ResourceList; requests?: ResourceList };
}

export interface ContainerState {
  running?: { startedAt?: string };
  waiting?: { reason?: string; message?: string };
  terminated?: { reason?: string; exitCode?: number };
}

export interface ContainerStatus {
  name: string;
  restartCount?: number;
  ready?: boolean;
  state?: ContainerState;
  lastState?: ContainerState;
}

/** Only whether a volume is PVC-backed matters: a generic ephemeral volume makes its own PVC. */
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName?: string };
  ephemeral?: unknown;
}

export interface Pod {
  metadata?: ObjectMeta;
  spec?: { nodeName?: string; containers?: Container[]; initContainers?: Container[]; volumes?: Volume[] };
  status?: {
    phase?: string;
    reason?: string;
    containerStatuses?: ContainerStatus[];
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface NodeCondition {
  type: string;
  status: string;
}

export interface Node {
  metadata?: ObjectMeta;
  spec?: { providerID?: string; taints?: Array<{ key: string; value?: string; effect?: string }> };
  status?: {
    capacity?: ResourceList;
    allocatable?: ResourceList;
    conditions?: NodeCondition[];
    nodeInfo?: { architecture?: string; operatingSystem?: string; kubeletVersion?: string };
  };
}

export interface CoreEvent {
  metadata?: ObjectMeta;
  involvedObject?: { kind?: string; name?: string; namespace?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  source?: { component?: string };
  reportingComponent?: string;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
}

export interface PodMetrics {
  metadata?: ObjectMeta;
  containers?: Array<{ name: string; usage?: ResourceList }>;
}

export interface NodeMetrics {
  metadata?: ObjectMeta;
  usage?: ResourceList;
}
