/** Rounds an amount to cents. */
export function roundMoney(amount: number): number {
  return Math.round(amount * 100) / 100;
}
