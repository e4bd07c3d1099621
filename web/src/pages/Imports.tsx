import { PageTitle } from '../components/ui';

export default function Imports() {
  return <PageTitle title="Imports" />;
}
