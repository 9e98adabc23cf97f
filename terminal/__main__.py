"""`python -m terminal`: the table terminal, as `traveller terminal` runs it."""

from .cli import app

if __name__ == "__main__":
    app(prog_name="traveller terminal")
