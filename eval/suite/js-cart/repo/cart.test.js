import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCoupon, subtotal } from './cart.js';

test('subtotal counts quantities', () => assert.equal(subtotal([{ price: 250, qty: 2 }, { price: 100, qty: 1 }]), 600, 'each line counts price times quantity'));
test('percent coupon', () => assert.equal(applyCoupon(1000, { type: 'percent', value: 10 }), 900, 'a coupon of value 10 takes ten percent off'));
test('fixed coupon', () => assert.equal(applyCoupon(1000, { type: 'fixed', value: 300 }), 700));
