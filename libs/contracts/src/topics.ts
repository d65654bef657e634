/** Topic names: the contract between the apps (see DESIGN.md). */
export const TOPICS = {
  poolUpdates: 'pool-updates',
  quoteInterest: 'quote-interest',
  quotesChanged: 'quotes-changed',
  quotesServed: 'quotes-served',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];
