import { PageTitle } from '../components/ui';

export default function Waste() {
  return <PageTitle title="Waste" />;
}
