import { ApiFailure } from '../../api-failure';
import { Checkbox, TextArea, TextField } from '../../components/ui';
import { type Column, type Row } from './shared';

/** A column's value as the form holds it (text; booleans as 'true' / 'false'). */
export function toInput(column: Column, value: unknown): string {
  if (value === null || value === undefined) return column.kind === 'boolean' ? 'false' : '';
  switch (column.kind) {
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 'true' ? 'true' : 'false';
    case 'datetime': {
      const date = new Date(String(value));
      if (Number.isNaN(date.getTime())) return String(value);
      const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
      return local.toISOString().slice(0, 16);
    }
    case 'json':
      return JSON.stringify(value, null, 2);
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** The form's text as the column's value; an Error names what is wrong. */
function fromInput(column: Column, text: string): unknown {
  const blank = text.trim() === '';
  switch (column.kind) {
    case 'boolean':
      return text === 'true';
    case 'integer':
      if (blank) return null;
      if (!/^-?\d+$/.test(text.trim())) return new Error(`${column.name} must be a whole number`);
      return Number(text.trim());
    case 'number':
      if (blank) return null;
      if (Number.isNaN(Number(text.trim()))) return new Error(`${column.name} must be a number`);
      return Number(text.trim());
    case 'datetime': {
      if (blank) return null;
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? new Error(`${column.name} must be a date and time`) : date.toISOString();
    }
    case 'json':
      if (blank) return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return new Error(`${column.name} is not valid JSON`);
      }
    default:
      return blank && column.nullable ? null : text;
  }
}

/** The fields of a record, one control per editable column, typed by the column's kind. */
export function RecordFields({
  columns,
  values,
  onChange,
  error,
  readOnly,
}: {
  columns: Column[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  error: unknown;
  readOnly: boolean;
}) {
  return (
    <>
      {columns.map((c) => {
        const common = { key: c.name, label: c.name, field: `data.${c.name}`, error, readOnly };
        const value = values[c.name] ?? '';
        const hint = [c.kind, c.nullable ? 'optional' : 'required', c.maxLength ? `at most ${c.maxLength} characters` : '']
          .filter(Boolean)
          .join(', ');
        switch (c.kind) {
          case 'boolean':
            return (
              <Checkbox
                key={c.name}
                label={c.name}
                checked={value === 'true'}
                disabled={readOnly}
                onChange={(e) => onChange(c.name, e.target.checked ? 'true' : 'false')}
              />
            );
          case 'json':
            return (
              <TextArea
                {...common}
                className="mono-area"
                rows={5}
                value={value}
                hint={hint}
                onChange={(e) => onChange(c.name, e.target.value)}
              />
            );
          case 'integer':
          case 'number':
            return (
              <TextField
                {...common}
                inputMode={c.kind === 'integer' ? 'numeric' : 'decimal'}
                value={value}
                hint={hint}
                onChange={(e) => onChange(c.name, e.target.value)}
              />
            );
          case 'datetime':
            return (
              <TextField {...common} type="datetime-local" value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            );
          default:
            return c.maxLength !== null && c.maxLength <= 255 ? (
              <TextField {...common} maxLength={c.maxLength} value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            ) : (
              <TextArea {...common} rows={4} value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            );
        }
      })}
    </>
  );
}

/** The values to send: every column (create) or only those changed (edit); a local failure names bad ones. */
export function collect(
  columns: Column[],
  values: Record<string, string>,
  initial: Record<string, string> | null,
): { data: Row; failure?: ApiFailure } {
  const data: Row = {};
  const errors: { field: string; message: string }[] = [];
  for (const c of columns) {
    const text = values[c.name] ?? '';
    if (initial && text === (initial[c.name] ?? '')) continue;
    if (!initial && text.trim() === '' && c.kind !== 'boolean') continue;
    const value = fromInput(c, text);
    if (value instanceof Error) errors.push({ field: `data.${c.name}`, message: value.message });
    else data[c.name] = value;
  }
  return errors.length ? { data, failure: new ApiFailure(400, 'Check the fields marked', errors) } : { data };
}
