import unittest

from slug import slugify, unique_slug


class SlugTest(unittest.TestCase):
    def test_lowercase_words(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world", "slugs are lowercase words joined by hyphens")

    def test_accents(self):
        self.assertEqual(slugify("Crème Brûlée"), "creme-brulee")

    def test_duplicates(self):
        self.assertEqual(unique_slug("Hello", {"hello"}), "hello-2", "a taken slug gets the suffix -2 first")


if __name__ == "__main__":
    unittest.main()
