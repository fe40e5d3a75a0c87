import unittest

from durations import slowest, to_ms

LOG = [
    "12:00:01 INFO request a1 took 120ms",
    "12:00:02 INFO request b2 took 850ms",
    "12:00:03 INFO cache warm",
    "12:00:04 INFO request c3 took 40ms",
]


class DurationsTest(unittest.TestCase):
    def test_milliseconds(self):
        self.assertEqual(to_ms("120", "ms"), 120)

    def test_slowest_first(self):
        self.assertEqual(slowest(LOG, 2), [("b2", 850), ("a1", 120)], "the slowest requests come first")


if __name__ == "__main__":
    unittest.main()
