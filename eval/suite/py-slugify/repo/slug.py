"""URL slugs for blog post titles."""
import re
import unicodedata


def slugify(title):
    """'Hello, World!' -> 'hello-world'."""
    text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^A-Za-z0-9]+", "-", text)
    return text.strip("-")


def unique_slug(title, taken):
    """A slug for `title` that is not in `taken`: the first duplicate gets -2, then -3, ..."""
    slug = slugify(title)
    if slug not in taken:
        return slug
    n = 1
    while f"{slug}-{n}" in taken:
        n += 1
    return f"{slug}-{n}"
