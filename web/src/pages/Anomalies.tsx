import { PageTitle } from '../components/ui';

export default function Anomalies() {
  return <PageTitle title="Anomalies" />;
}
