import type { HandlerContext, OutboxHandler } from '../integrations/outbox/outbox-dispatcher.js'
import { INVITATION_KIND, invitationMail } from './invitation-repo.js'
import { PASSWORD_RESET_KIND, passwordResetMail } from './password-reset.js'
import { linkMailHandler, type LinkMailOptions } from './system-mail.js'

/** The dispatcher's handlers of the links the system mailer sends: invitations and password resets. */
export function accountMailHandlers(
  options: LinkMailOptions,
): Record<string, (context: HandlerContext) => OutboxHandler> {
  const { appUrl } = options.config
  return {
    [INVITATION_KIND]: linkMailHandler(options, (db, payload, now) => invitationMail(db, appUrl, payload, now)),
    [PASSWORD_RESET_KIND]: linkMailHandler(options, (db, payload, now) => passwordResetMail(db, appUrl, payload, now)),
  }
}
