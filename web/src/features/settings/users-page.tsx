import { useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import type { Role } from '@leadline/shared/user-schema'
import { Button } from '../../components/ui/button'
import { CardSection } from '../../components/ui/card-section'
import { CheckboxField } from '../../components/ui/checkbox-field'
import { ConfirmedMutationDelete } from '../../components/ui/confirmed-mutation-delete'
import { Dialog } from '../../components/ui/dialog'
import { FormActions } from '../../components/ui/form-actions'
import { SelectField } from '../../components/ui/select-field'
import { TextField } from '../../components/ui/text-field'
import { showToast } from '../../components/ui/toast'
import { saveErrorMessage } from '../../lib/api'
import { placeErrors } from '../../lib/form-errors'
import { formatDateTime, formatRelative } from '../../lib/format'
import { useFormValue } from '../../lib/form-value'
import { authQueries } from '../auth/auth-queries'
import { settingsPage, SettingsScreen } from './settings-layout'
import { SettingsTable } from './settings-table'
import {
  useChangeRole,
  useInvite,
  useResendInvitation,
  useRevokeInvitation,
  useSetMemberActive,
  useSetPolicy,
} from './users-mutations'
import { memberName, usersQueries, type Invitation, type Member } from './users-queries'

const ROLE_OPTIONS = [
  { value: 'user', label: 'User' },
  { value: 'admin', label: 'Admin' },
] as const

const roleOf = (value: string): Role => (value === 'admin' ? 'admin' : 'user')
const roleLabel = (role: Role) => (role === 'admin' ? 'Admin' : 'User')

const cell = 'px-3 py-2 align-middle'

/** The organization's members and invitations, and its two-factor rule (admins only). */
export const UsersPage = settingsPage(UsersPageContent)

function UsersPageContent() {
  const [inviting, setInviting] = useState(false)
  return (
    <SettingsScreen
      title="Users"
      description="Who works in this organization, and what they may change."
      actions={
        <Button
          variant="primary"
          onPress={() => {
            setInviting(true)
          }}
        >
          Invite user
        </Button>
      }
    >
      <TwoFactorPolicy />
      <MembersTable />
      <PendingInvitations />
      <InviteDialog
        isOpen={inviting}
        onClose={() => {
          setInviting(false)
        }}
      />
    </SettingsScreen>
  )
}

/** Not suspended on: should the policy fail to load, the members and invitations are still of use. */
function TwoFactorPolicy() {
  const policy = useQuery(usersQueries.policy())
  const setPolicy = useSetPolicy()
  const checked = setPolicy.isPending
    ? setPolicy.variables.require_two_factor
    : (policy.data?.require_two_factor ?? false)
  const error = setPolicy.error ?? policy.error
  return (
    <div className="flex flex-col gap-1">
      <CheckboxField
        label="Require two-factor sign-in"
        description="Members without two-factor still sign in, but can do nothing until they turn it on under Profile."
        checked={checked}
        isDisabled={setPolicy.isPending || policy.data === undefined}
        onChange={(require) => {
          setPolicy.mutate({ require_two_factor: require })
        }}
      />
      {error === null ? null : (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
    </div>
  )
}

function MembersTable() {
  const { data: members } = useSuspenseQuery(usersQueries.members())
  const { data: session } = useSuspenseQuery(authQueries.session())
  return (
    <CardSection headingId="members-heading" title="Members">
      <SettingsTable
        labelledBy="members-heading"
        columns={['Name', 'Email', 'Role', 'Status', 'Last active', 'Two-factor']}
        rows={members}
      >
        {(member) => <MemberRow key={member.id} member={member} isMe={member.user_id === session.user.id} />}
      </SettingsTable>
    </CardSection>
  )
}

function MemberRow({ member, isMe }: { member: Member; isMe: boolean }) {
  const changeRole = useChangeRole()
  const queryClient = useQueryClient()
  const setActive = useSetMemberActive()
  const name = memberName(member)
  const active = member.status === 'active'
  const refused = (error: Error) => {
    showToast({ title: `${name} was not changed`, description: error.message, tone: 'error' })
  }
  return (
    <tr>
      <th scope="row" className={`${cell} font-medium text-slate-900`}>
        {name}
        {isMe ? <span className="ml-1 text-xs font-normal text-slate-500">(you)</span> : null}
      </th>
      {/* An address breaks where it must, so that a long one does not push Deactivate out of a laptop's view. */}
      <td className={`${cell} wrap-anywhere`}>{member.email}</td>
      <td className={cell}>
        <SelectField
          label={`Role for ${name}`}
          hideLabel
          value={changeRole.isPending ? changeRole.variables.role : member.role_id}
          options={ROLE_OPTIONS}
          isDisabled={changeRole.isPending}
          error={changeRole.error === null ? undefined : saveErrorMessage(changeRole.error, 'role_id')}
          onChange={(value) => {
            changeRole.mutate(
              { id: member.id, role: roleOf(value) },
              {
                // An admin who made themselves a user is one now: the session says so, and settings close to them.
                onSuccess: () => {
                  if (isMe) void queryClient.invalidateQueries({ queryKey: authQueries.all() })
                },
              },
            )
          }}
          className="w-28"
        />
      </td>
      <td className={cell}>{active ? 'Active' : 'Deactivated'}</td>
      {/* "3 hours ago", the date after a week, the whole time on hover: a full stamp wrapped the row onto four lines. */}
      <td className={`${cell} whitespace-nowrap`}>
        {member.last_used === null ? (
          'Never'
        ) : (
          <time dateTime={member.last_used} title={formatDateTime(member.last_used)}>
            {formatRelative(member.last_used)}
          </time>
        )}
      </td>
      <td className={cell}>{member.two_factor_enabled ? 'On' : 'Off'}</td>
      <td className={`${cell} text-right`}>
        {isMe ? null : active ? (
          <ConfirmedMutationDelete
            label="Deactivate"
            confirmLabel="Deactivate"
            title={`Deactivate ${name}?`}
            mutation={setActive}
            variables={{ id: member.id, active: false }}
            failure={`${name} was not changed`}
            closeOnError
          >
            They are signed out everywhere and their API keys stop working. Their leads and activities keep their name,
            and you can reactivate them later.
          </ConfirmedMutationDelete>
        ) : (
          <Button
            isPending={setActive.isPending}
            onPress={() => {
              setActive.mutate({ id: member.id, active: true }, { onError: refused })
            }}
          >
            Reactivate
          </Button>
        )}
      </td>
    </tr>
  )
}

function PendingInvitations() {
  const { data: invitations } = useSuspenseQuery(usersQueries.invitations())
  return (
    <CardSection headingId="invitations-heading" title="Pending invitations">
      <SettingsTable
        labelledBy="invitations-heading"
        columns={['Email', 'Role', 'Sent', 'Expires']}
        rows={invitations}
        ifNone="No invitations are waiting for an answer."
      >
        {(invitation) => <InvitationRow key={invitation.id} invitation={invitation} />}
      </SettingsTable>
    </CardSection>
  )
}

function InvitationRow({ invitation }: { invitation: Invitation }) {
  const resend = useResendInvitation()
  const revoke = useRevokeInvitation()
  return (
    <tr>
      <th scope="row" className={`${cell} font-medium text-slate-900`}>
        {invitation.email}
      </th>
      <td className={cell}>{roleLabel(invitation.role_id)}</td>
      <td className={cell}>
        {formatDateTime(invitation.date_last_sent)}
        <span className="block text-xs text-slate-500">by {invitation.invited_by_name}</span>
      </td>
      <td className={cell}>{invitation.status === 'expired' ? 'Expired' : formatDateTime(invitation.date_expires)}</td>
      <td className={`${cell} text-right whitespace-nowrap`}>
        <div className="inline-flex gap-2">
          <Button
            isPending={resend.isPending}
            onPress={() => {
              resend.mutate(invitation.id, {
                onSuccess: () => {
                  showToast({ title: `Invitation sent again to ${invitation.email}` })
                },
                onError: (error) => {
                  showToast({ title: 'The invitation was not sent again', description: error.message, tone: 'error' })
                },
              })
            }}
          >
            Resend
          </Button>
          <ConfirmedMutationDelete
            label="Revoke"
            confirmLabel="Revoke"
            title={`Revoke the invitation to ${invitation.email}?`}
            mutation={revoke}
            variables={invitation.id}
            failure="The invitation was not revoked"
            closeOnError
          >
            Its link stops working. You can invite the same address again later.
          </ConfirmedMutationDelete>
        </div>
      </td>
    </tr>
  )
}

function InviteDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const invite = useInvite()
  const email = useFormValue('', invite)
  const [role, setRole] = useState<Role>('user')
  const close = () => {
    email.setValue('')
    setRole('user')
    invite.reset()
    onClose()
  }
  const { beside, general } = placeErrors(['email', 'role_id'], invite.error)
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault()
    const address = email.value.trim()
    invite.mutate(
      { email: address, role_id: role },
      {
        onSuccess: (invitation) => {
          close()
          showToast({ title: `Invitation sent to ${invitation.email}` })
        },
      },
    )
  }
  return (
    <Dialog
      title="Invite user"
      isOpen={isOpen}
      onOpenChange={(open) => {
        if (!open) close()
      }}
      isDismissable={email.value === ''}
    >
      <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
        <TextField
          label="Email"
          type="email"
          autoComplete="off"
          autoFocus
          {...email.field}
          isRequired
          error={beside.email}
          description="They get an email with a link that works for 7 days."
        />
        <SelectField
          label="Role"
          value={role}
          options={ROLE_OPTIONS}
          onChange={(value) => {
            setRole(roleOf(value))
            invite.reset()
          }}
          error={beside.role_id}
        />
        <FormActions error={general} submitLabel="Send invitation" isPending={invite.isPending} onCancel={close} />
      </form>
    </Dialog>
  )
}
