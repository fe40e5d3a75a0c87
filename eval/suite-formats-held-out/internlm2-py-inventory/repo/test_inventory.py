import unittest

from inventory import Inventory


class InventoryTest(unittest.TestCase):
    def test_add_accumulates(self):
        stock = Inventory()
        stock.add("bolt", 3)
        stock.add("bolt", 2)
        self.assertEqual(stock.items["bolt"], 5, "adding the same item twice adds up")

    def test_remove_to_zero(self):
        stock = Inventory()
        stock.add("nut", 2)
        stock.remove("nut", 2)
        self.assertEqual(stock.names(), [], "an item removed down to zero is no longer listed")

    def test_remove_too_many(self):
        stock = Inventory()
        stock.add("nut", 1)
        with self.assertRaises(ValueError):
            stock.remove("nut", 2)


if __name__ == "__main__":
    unittest.main()
