import unittest

from convert import c_to_f, f_to_c, parse_reading


class ConvertCheck(unittest.TestCase):
    def test_conversions(self):
        self.assertEqual(c_to_f(0), 32)
        self.assertEqual(c_to_f(-40), -40)
        self.assertAlmostEqual(f_to_c(212), 100)

    def test_parse(self):
        self.assertEqual(parse_reading("21.5C"), 21.5)
        self.assertEqual(parse_reading("21.5c"), 21.5)
        self.assertAlmostEqual(parse_reading("212f"), 100)

    def test_unknown_unit(self):
        with self.assertRaises(ValueError):
            parse_reading("20K")


if __name__ == "__main__":
    unittest.main()
