import unittest

from units import describe, to_celsius, to_kelvin


class UnitsCheck(unittest.TestCase):
    def test_conversions(self):
        self.assertAlmostEqual(to_celsius(-40), -40)
        self.assertAlmostEqual(to_celsius(98.6), 37)
        self.assertAlmostEqual(to_kelvin(-273.15), 0)
        self.assertEqual(describe(-5), "-5.0 °C (268.15 K)")


if __name__ == "__main__":
    unittest.main()
