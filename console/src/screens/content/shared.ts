import { useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../../api';
import { useInvalidate } from '../../hooks';

export type Table = Schemas['ContentTableDto'];

export type Column = Schemas['EditableColumnDto'];

export type Version = Schemas['ContentVersion'];

export type Row = Record<string, unknown>;

export const STAGES = ['draft', 'staged', 'published', 'expired'] as const;

export type Stage = (typeof STAGES)[number];

export function isStage(value: string): value is Stage {
  return (STAGES as readonly string[]).includes(value);
}

export const STAGE_LABEL: Record<Stage, string> = { draft: 'Drafts', staged: 'Staged', published: 'Published', expired: 'Expired' };

export function useTables() {
  return useQuery({ queryKey: ['contentTables'], queryFn: () => call(api.POST('/content/tables', { body: {} })), staleTime: 60_000 });
}

export function str(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function useRecordChanged(table: string, id: number) {
  const invalidate = useInvalidate();
  return () => invalidate(['contentRecord', table, id], ['contentHistory', table, id], ['contentRows'], ['contentTables']);
}

export function useHistory(table: string, id: number) {
  return useQuery({
    queryKey: ['contentHistory', table, id],
    queryFn: () => call(api.POST('/content/history', { body: { table, masterId: id } })),
  });
}
