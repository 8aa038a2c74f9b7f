import { TitledSection, type TitledSectionProps } from './panel'

export type CardSectionProps = Omit<TitledSectionProps, 'look' | 'className'>

/** A bordered card of a settings screen, a region named by its heading. */
export function CardSection(props: CardSectionProps) {
  return <TitledSection look="card" {...props} />
}
