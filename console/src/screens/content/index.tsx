import { Tables, Rows } from './Tables';
import { NewRecord, RecordPage } from './Records';

export default function Content({ params }: { params: Record<string, string> }) {
  if (!params.table) return <Tables />;
  if (!params.id) return <Rows table={params.table} />;
  if (params.id === 'new') return <NewRecord table={params.table} />;
  return <RecordPage table={params.table} id={Number(params.id)} />;
}
