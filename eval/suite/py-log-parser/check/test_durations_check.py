import unittest

from durations import slowest, to_ms


class DurationsCheck(unittest.TestCase):
    def test_units(self):
        self.assertEqual(to_ms("120", "ms"), 120)
        self.assertEqual(to_ms("1.5", "s"), 1500)

    def test_slowest_mixed_units(self):
        log = ["request a took 900ms", "request b took 2.5s", "request c took 30ms", "noise"]
        self.assertEqual(slowest(log, 2), [("b", 2500), ("a", 900)])


if __name__ == "__main__":
    unittest.main()
