import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { MutationDialog } from '../components/dialog';
import { Badge, Checkbox, ErrorMessage, Loading, Status, TableWrap, TextField, useCan, useTitle } from '../components/ui';
import { dateTime, fullName } from '../format';
import { useSession } from '../session';

type Member = Schemas['StaffMemberDto'];
type Role = Member['roles'][number];
const ROLES: { role: Role; label: string; about: string }[] = [
  { role: 'owner', label: 'Owner', about: 'everything, staff and settings included' },
  { role: 'orders', label: 'Orders', about: 'orders, refunds, cancellations, tokens' },
  { role: 'content', label: 'Content', about: 'content tables and mail templates' },
  { role: 'support', label: 'Support', about: 'orders (view, notes, resend), customers, send log' },
  { role: 'viewer', label: 'Viewer', about: 'reads everything, changes nothing' },
];

export default function Staff() {
  useTitle('Staff');
  const can = useCan();
  const session = useSession();
  const me = session.status === 'signedIn' ? session.data.staff.id : null;
  const staff = useQuery({ queryKey: ['staff'], queryFn: () => call(api.POST('/staff/list', { body: {} })) });
  const [editing, setEditing] = useState<Member | null>(null);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [done, setDone] = useState('');
  const rows = staff.data?.data ?? [];
  const manage = can('staff.manage');

  return (
    <section aria-labelledby="staff-title">
      <h1 id="staff-title">Staff</h1>
      <ErrorMessage error={staff.error} />
      <Status>{done}</Status>
      {staff.isPending ? (
        <Loading label="Loading staff…" />
      ) : (
        <TableWrap label="Staff members">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Roles</th>
                <th scope="col">Password</th>
                <th scope="col">Since</th>
                {manage && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((m) => {
                const label = fullName(m.firstname, m.lastname) || m.email;
                return (
                  <tr key={m.id}>
                    <th scope="row" className="wrap">
                      {fullName(m.firstname, m.lastname) || '—'}
                      {m.id === me && <span className="sub">You</span>}
                      <span className="sub">ID {m.id}</span>
                    </th>
                    <td className="wrap">{m.email}</td>
                    <td>
                      {m.roles.length === 0 ? (
                        <span className="sub-inline">No roles</span>
                      ) : (
                        <ul className="tags" aria-label={`Roles of ${label}`}>
                          {m.roles.map((r) => (
                            <li key={r}>
                              <Badge value={r} />
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td>{m.passwordSet ? 'Set' : 'Invited'}</td>
                    <td>{dateTime(m.created)}</td>
                    {manage && (
                      <td>
                        <div className="actions tight">
                          <button type="button" className="secondary" onClick={() => setEditing(m)} aria-label={`Change roles of ${label}`}>
                            Change roles
                          </button>
                          {m.roles.length > 0 && (
                            <button type="button" className="danger" onClick={() => setRemoving(m)} aria-label={`Remove ${label}`}>
                              Remove
                            </button>
                          )}
                        </div>
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
      {editing && <RolesDialog key={editing.id} member={editing} onClose={() => setEditing(null)} onDone={setDone} />}
      {removing && <RemoveDialog key={removing.id} member={removing} onClose={() => setRemoving(null)} onDone={setDone} />}
      {manage && <Invite onDone={setDone} />}
    </section>
  );
}

function RoleBoxes({ roles, onChange, legend }: { roles: Role[]; onChange: (roles: Role[]) => void; legend: string }) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {ROLES.map(({ role, label, about }) => (
        <Checkbox
          key={role}
          label={`${label}: ${about}`}
          checked={roles.includes(role)}
          onChange={(e) => onChange(e.target.checked ? [...roles, role] : roles.filter((r) => r !== role))}
        />
      ))}
    </fieldset>
  );
}

function RolesDialog({ member, onClose, onDone }: { member: Member; onClose: () => void; onDone: (message: string) => void }) {
  const client = useQueryClient();
  const [roles, setRoles] = useState<Role[]>(member.roles);
  const save = useMutation({
    mutationFn: () => call(api.POST('/staff/roles', { body: { userId: member.id, roles } })),
    onSuccess: async (answer) => {
      onDone(`Roles of ${answer.data.email}: ${answer.data.roles.join(', ') || 'none'}.`);
      onClose();
      await client.invalidateQueries({ queryKey: ['staff'] });
    },
  });
  return (
    <MutationDialog
      mutation={save}
      title={`Roles of ${fullName(member.firstname, member.lastname) || member.email}`}
      confirmLabel="Save roles"
      onClose={onClose}
    >
      <RoleBoxes roles={roles} onChange={setRoles} legend="Roles" />
    </MutationDialog>
  );
}

function RemoveDialog({ member, onClose, onDone }: { member: Member; onClose: () => void; onDone: (message: string) => void }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => call(api.POST('/staff/remove', { body: { userId: member.id } })),
    onSuccess: async (answer) => {
      onDone(`${answer.data.email} was removed: no roles, no password, signed out everywhere.`);
      onClose();
      await client.invalidateQueries({ queryKey: ['staff'] });
    },
  });
  return (
    <MutationDialog mutation={remove} danger title={`Remove ${member.email}?`} confirmLabel="Yes, remove" onClose={onClose}>
      <p>They lose every role and their password, and are signed out at their next request. The account stays for the audit log.</p>
    </MutationDialog>
  );
}

function Invite({ onDone }: { onDone: (message: string) => void }) {
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const [firstname, setFirstname] = useState('');
  const [lastname, setLastname] = useState('');
  const [roles, setRoles] = useState<Role[]>([]);
  const invite = useMutation({
    mutationFn: () =>
      call(
        api.POST('/staff/invite', {
          body: {
            email: email.trim(),
            roles,
            ...(firstname.trim() ? { firstname: firstname.trim() } : {}),
            ...(lastname.trim() ? { lastname: lastname.trim() } : {}),
          },
        }),
      ),
    onSuccess: async (answer) => {
      onDone(`Invitation sent to ${answer.data.email}: they set a password through the link in it.`);
      setEmail('');
      setFirstname('');
      setLastname('');
      setRoles([]);
      await client.invalidateQueries({ queryKey: ['staff'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate();
  };
  return (
    <section className="panel" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a staff member</h2>
      <form onSubmit={submit}>
        <div className="form-row">
          <TextField
            label="Email"
            field="email"
            error={invite.error}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
            autoComplete="off"
          />
          <TextField
            label="First name"
            field="firstname"
            error={invite.error}
            value={firstname}
            onChange={(e) => setFirstname(e.target.value)}
            autoComplete="off"
          />
          <TextField
            label="Last name"
            field="lastname"
            error={invite.error}
            value={lastname}
            onChange={(e) => setLastname(e.target.value)}
            autoComplete="off"
          />
        </div>
        <RoleBoxes roles={roles} onChange={setRoles} legend="Roles" />
        <ErrorMessage error={invite.error} shownFields={['email', 'firstname', 'lastname']} />
        <button type="submit" disabled={invite.isPending}>
          Invite
        </button>
      </form>
    </section>
  );
}
