import { PageTitle } from '../components/ui';

export default function Forecast() {
  return <PageTitle title="Forecast" />;
}
