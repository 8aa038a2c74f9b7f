import { linkableUrl } from '../../lib/url'
import { cx } from '../../lib/cx'

/** A URL as the user typed it: a link (in a new tab) when it is a web address, otherwise plain text. */
export function ExternalLink({ url, className }: { url: string; className?: string }) {
  const href = linkableUrl(url)
  if (href === undefined) return <span className={className}>{url}</span>
  return (
    <a
      href={href}
      target="_blank"
      rel="noreferrer noopener"
      className={cx('text-indigo-700 hover:underline', className)}
    >
      {url}
    </a>
  )
}
