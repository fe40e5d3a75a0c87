import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCoupon, subtotal } from './cart.js';

test('check: subtotal', () => assert.equal(subtotal([{ price: 250, qty: 2 }, { price: 99, qty: 3 }]), 797));
test('check: coupons', () => {
  assert.equal(applyCoupon(2000, { type: 'percent', value: 25 }), 1500);
  assert.equal(applyCoupon(1000, { type: 'fixed', value: 300 }), 700);
  assert.equal(applyCoupon(200, { type: 'fixed', value: 500 }), 0);
});
