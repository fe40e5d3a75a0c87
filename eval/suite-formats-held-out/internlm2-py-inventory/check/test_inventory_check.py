import unittest

from inventory import Inventory


class InventoryCheck(unittest.TestCase):
    def test_stock(self):
        stock = Inventory()
        stock.add("bolt", 3)
        stock.add("bolt", 2)
        stock.add("nut", 4)
        stock.remove("bolt", 1)
        self.assertEqual(stock.items, {"bolt": 4, "nut": 4})
        self.assertEqual(stock.total(), 8)

    def test_remove_to_zero(self):
        stock = Inventory()
        stock.add("nut", 2)
        stock.remove("nut", 2)
        self.assertEqual(stock.names(), [])
        self.assertEqual(stock.total(), 0)

    def test_errors(self):
        stock = Inventory()
        with self.assertRaises(ValueError):
            stock.add("nut", 0)
        with self.assertRaises(ValueError):
            stock.remove("nut", 1)


if __name__ == "__main__":
    unittest.main()
