import unittest

from convert import c_to_f, f_to_c, parse_reading


class ConvertTest(unittest.TestCase):
    def test_freezing_and_boiling(self):
        self.assertEqual(c_to_f(0), 32, "0 C is 32 F")
        self.assertEqual(c_to_f(100), 212, "100 C is 212 F")

    def test_round_trip(self):
        self.assertAlmostEqual(f_to_c(c_to_f(21.5)), 21.5)

    def test_parse_units(self):
        self.assertEqual(parse_reading("21.5C"), 21.5)
        self.assertAlmostEqual(parse_reading("212F"), 100)

    def test_parse_lowercase(self):
        self.assertEqual(parse_reading("21.5c"), 21.5, "lowercase unit letters must parse")


if __name__ == "__main__":
    unittest.main()
