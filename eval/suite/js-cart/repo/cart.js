// Shopping cart totals. Prices are in cents.

/** Sum of price × quantity over the cart's lines. */
export function subtotal(lines) {
  return lines.reduce((sum, line) => sum + line.price, 0);
}

/** The amount after a coupon: { type: 'percent', value: 10 } takes 10% off; { type: 'fixed', value: 500 } takes 500 cents off. */
export function applyCoupon(amount, coupon) {
  if (coupon.type === 'percent') return amount - amount * coupon.value;
  if (coupon.type === 'fixed') return amount - coupon.value;
  return amount;
}
