import { describe, expect, it } from 'vitest'
import { emailFixture } from './email-fixture'
import { emailFrom, emailParts, emailTo, senderWarning, threadParticipants, threadSubject } from './email-display'

describe('threadSubject', () => {
  it('is the newest email’s subject without its reply and forward prefixes', () => {
    expect(
      threadSubject([
        emailFixture('a', { subject: 'Proposal' }),
        emailFixture('b', { subject: 'RE: Fwd: AW[2]: Price' }),
      ]),
    ).toBe('Price')
    expect(threadSubject([emailFixture('a', { subject: 'Re:' })])).toBe('(no subject)')
    expect(threadSubject([])).toBe('(no subject)')
  })
})

describe('threadParticipants', () => {
  it('names everyone once, by name when any email knows it', () => {
    const first = emailFixture('a', {
      envelope: {
        from: [{ name: '', email: 'casey@journey.test' }],
        to: [{ name: 'Ann Smith', email: 'ann@example.com' }],
        cc: [{ name: '', email: 'bo@example.com' }],
      },
    })
    const reply = emailFixture('b', {
      envelope: {
        from: [{ name: 'Ann S.', email: 'ANN@example.com' }],
        to: [{ name: 'Casey Closer', email: 'casey@journey.test' }],
        cc: [],
      },
    })
    expect(threadParticipants([first, reply])).toEqual(['Casey Closer', 'Ann Smith', 'bo@example.com'])
  })
})

describe('emailFrom and emailTo', () => {
  it('read the envelope, else the addresses as written', () => {
    const email = emailFixture('a')
    expect(emailFrom(email)).toBe('Casey Closer <casey@journey.test>')
    expect(emailTo(email)).toBe('Ann Smith <ann@example.com>')
    const bare = emailFixture('b', { envelope: { from: [], to: [], cc: [] }, sender: 'x@y.zz', to: ['a@b.cc'] })
    expect(emailFrom(bare)).toBe('x@y.zz')
    expect(emailTo(bare)).toBe('a@b.cc')
  })
})

describe('emailParts', () => {
  it('folds the quoted pieces of the HTML and joins neighbours of one kind', () => {
    const email = emailFixture('a', {
      body_html: 'x',
      body_html_quoted: [
        { html: '<p>Thanks!</p>', expand: true },
        { html: '<p>See you.</p>', expand: true },
        { html: '<p>On Monday Ann wrote:</p>', expand: false },
        { html: '<blockquote>Hi</blockquote>', expand: false },
        { html: '<br> ', expand: true },
      ],
    })
    expect(emailParts(email)).toEqual([
      { html: '<p>Thanks!</p><p>See you.</p>', quoted: false },
      { html: '<p>On Monday Ann wrote:</p><blockquote>Hi</blockquote>', quoted: true },
    ])
  })

  it('reads the text’s split when there is no HTML, escaped with its line breaks', () => {
    const email = emailFixture('a', {
      body_html: '',
      body_text: 'ignored',
      body_text_quoted: [
        { text: 'Sure <3\nBo', expand: true },
        { text: '> Hi', expand: false },
      ],
    })
    expect(emailParts(email)).toEqual([
      { html: 'Sure &lt;3<br>Bo', quoted: false },
      { html: '&gt; Hi', quoted: true },
    ])
  })

  it('shows the whole body when the API gave no split', () => {
    expect(emailParts(emailFixture('a', { body_html: '<p>Hi</p>' }))).toEqual([{ html: '<p>Hi</p>', quoted: false }])
    expect(emailParts(emailFixture('a', { body_html: '', body_text: 'Hi\nthere' }))).toEqual([
      { html: 'Hi<br>there', quoted: false },
    ])
    expect(emailParts(emailFixture('a', { body_html: '', body_text: '' }))).toEqual([])
  })
})

describe('senderWarning', () => {
  it('warns of a received email whose sender failed the check, with the reason', () => {
    const failed = emailFixture('a', {
      direction: 'incoming',
      status: 'inbox',
      sender_check: { result: 'fail', reason: 'SPF fail: journey.test does not allow 192.0.2.1 to send its mail' },
    })
    expect(senderWarning(failed)).toBe(
      'The sender could not be verified: this email may not be from Casey Closer <casey@journey.test>. SPF fail: journey.test does not allow 192.0.2.1 to send its mail',
    )
    expect(senderWarning(emailFixture('b', { sender_check: { result: 'pass', reason: 'SPF pass' } }))).toBeUndefined()
    expect(
      senderWarning(emailFixture('c', { sender_check: { result: 'none', reason: 'No DMARC policy' } })),
    ).toBeUndefined()
    expect(senderWarning(emailFixture('d'))).toBeUndefined()
  })
})
