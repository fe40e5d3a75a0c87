import unittest

from rotate import backups, to_delete

NAMES = ["backup-2024-01-03.tar.gz", "notes.txt", "backup-2024-01-01.tar.gz", "backup-2024-01-02.tar.gz"]


class RotateTest(unittest.TestCase):
    def test_oldest_first(self):
        self.assertEqual(backups(NAMES), ["backup-2024-01-01.tar.gz", "backup-2024-01-02.tar.gz", "backup-2024-01-03.tar.gz"])

    def test_keep_two(self):
        self.assertEqual(to_delete(NAMES, 2), ["backup-2024-01-01.tar.gz"])

    def test_keep_none(self):
        self.assertEqual(len(to_delete(NAMES, 0)), 3, "keep=0 deletes every backup")


if __name__ == "__main__":
    unittest.main()
