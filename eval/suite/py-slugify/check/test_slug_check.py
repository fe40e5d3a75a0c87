import unittest

from slug import slugify, unique_slug


class SlugCheck(unittest.TestCase):
    def test_slugs(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("  Crème   Brûlée -- 2024 "), "creme-brulee-2024")

    def test_duplicates(self):
        self.assertEqual(unique_slug("Hello", set()), "hello")
        self.assertEqual(unique_slug("Hello", {"hello"}), "hello-2")
        self.assertEqual(unique_slug("Hello", {"hello", "hello-2"}), "hello-3")

    def test_untitled(self):
        self.assertEqual(slugify(""), "untitled")
        self.assertEqual(slugify("!!!"), "untitled")


if __name__ == "__main__":
    unittest.main()
