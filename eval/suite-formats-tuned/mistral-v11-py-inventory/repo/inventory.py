"""Stock keeping for the warehouse."""


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, quantity):
        """Put `quantity` more of `name` in stock."""
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        self.items[name] = quantity

    def remove(self, name, quantity):
        """Take `quantity` of `name` out of stock."""
        have = self.items.get(name, 0)
        if quantity > have:
            raise ValueError(f"only {have} {name} in stock")
        self.items[name] = have - quantity

    def total(self):
        return sum(self.items.values())

    def names(self):
        """Names of the items in stock, sorted."""
        return sorted(self.items)
