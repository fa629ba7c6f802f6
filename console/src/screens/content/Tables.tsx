import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call } from '../../api';
import { Badge, ErrorMessage, ListResults, Loading, Pager, TableWrap, useCan, useTitle } from '../../components/ui';
import { dateTime } from '../../format';
import { Link, useUrlFilters } from '../../router';
import { isStage, type Row, STAGE_LABEL, STAGES, type Stage, str, useTables } from './shared';

export function Tables() {
  useTitle('Content');
  const tables = useTables();
  const rows = tables.data?.data ?? [];
  return (
    <section aria-labelledby="content-title">
      <h1 id="content-title">Content</h1>
      <ErrorMessage error={tables.error} />
      {tables.isPending ? (
        <Loading label="Loading content tables…" />
      ) : rows.length === 0 ? (
        <p>This shop has no content tables.</p>
      ) : (
        <TableWrap label="Content tables">
          <table className="list stack">
            <thead>
              <tr>
                <th scope="col">Table</th>
                {STAGES.map((s) => (
                  <th key={s} scope="col" className="num">
                    {STAGE_LABEL[s]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.table}>
                  <th scope="row">
                    <Link to={`/content/${encodeURIComponent(t.table)}`}>{t.table}</Link>
                    {t.live && <span className="sub">Live table (no versions)</span>}
                  </th>
                  {STAGES.map((s) => (
                    <td key={s} data-label={STAGE_LABEL[s]} className="num">
                      {t.stages[s]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

export function Rows({ table }: { table: string }) {
  useTitle(`Content: ${table}`);
  const can = useCan();
  const { filters, page, setPage } = useUrlFilters(['stage'], ({ stage }) => ({ stage: isStage(stage) ? stage : 'draft' }));
  const stage = filters.stage as Stage;
  const tables = useTables();
  const info = tables.data?.data.find((t) => t.table === table);
  const body = { table, stage, page, perPage: 20 };
  const rows = useQuery({
    queryKey: ['contentRows', body],
    queryFn: () => call(api.POST('/content/rows', { body })),
    placeholderData: keepPreviousData,
  });
  const list = (rows.data?.data ?? []) as Row[];
  // One column besides the title: with the three dates, a second one pushed Expires out of sight at 1280 px.
  const extra = (info?.columns ?? []).filter((c) => c.name !== info?.titleField && c.kind !== 'json').slice(0, 1);

  return (
    <section aria-labelledby="rows-title">
      <p className="crumbs">
        <Link to="/content">Content</Link> / {table}
      </p>
      <h1 id="rows-title">{table}</h1>
      {can('content.edit') && info && !info.live && (
        <p>
          <Link to={`/content/${encodeURIComponent(table)}/new`} className="button-link">
            New record
          </Link>
        </p>
      )}
      <nav className="tabs" aria-label="Stages">
        <ul>
          {STAGES.map((s) => (
            <li key={s}>
              <Link to={`/content/${encodeURIComponent(table)}?stage=${s}`} aria-current={s === stage ? 'page' : undefined}>
                {STAGE_LABEL[s]}
                {info && <span className="count"> ({info.stages[s]})</span>}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorMessage error={rows.error ?? tables.error} />
      <ListResults
        query={rows}
        count={list.length}
        loading="Loading records…"
        empty={`No ${stage} records.`}
        showing={`Showing ${list.length} records on page ${page}.`}
        pager={<Pager label="Records" page={page} hasMore={rows.data?.paging.hasMore ?? false} busy={rows.isFetching} onPage={setPage} />}
      >
        <TableWrap label={`${STAGE_LABEL[stage]} records`}>
          <table className="list stack">
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Status</th>
                {extra.map((c) => (
                  <th key={c.name} scope="col">
                    {c.name}
                  </th>
                ))}
                <th scope="col">Updated</th>
                <th scope="col">Publishes</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {list.map((r) => {
                const id = Number(r.meta_master_id ?? r.id);
                return (
                  <tr key={`${id}:${str(r.meta_current_id)}`}>
                    <th scope="row" className="wrap">
                      <Link to={`/content/${encodeURIComponent(table)}/${id}`}>{str(r.meta_title) || `Record ${id}`}</Link>
                      <span className="sub">ID {id}</span>
                    </th>
                    <td data-label="Status">
                      <Badge value={str(r.meta_status)} />
                    </td>
                    {extra.map((c) => (
                      <td key={c.name} data-label={c.name} className="wrap">
                        {str(r[c.name]).slice(0, 80) || '—'}
                      </td>
                    ))}
                    <td data-label="Updated">{dateTime(str(r.meta_updated))}</td>
                    <td data-label="Publishes">{dateTime(str(r.meta_publish_set_date))}</td>
                    <td data-label="Expires">{r.meta_publish_expire_date ? dateTime(str(r.meta_publish_expire_date)) : 'Never'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      </ListResults>
    </section>
  );
}
