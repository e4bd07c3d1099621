import { PageTitle } from '../components/ui';

export default function Kubernetes() {
  return <PageTitle title="Kubernetes" />;
}
