"""The one error every importer raises: what is wrong and where (file, line, board)."""

from __future__ import annotations


class EventFileError(ValueError):
    """A file that cannot be read as an event, with the line or board where it went wrong."""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        board: int | None = None,
        path: str | None = None,
    ) -> None:
        self.message = message
        self.line = line
        self.board = board
        self.path = path
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.board is not None:
            where.append(f"board {self.board}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    def located(self, path: str) -> EventFileError:
        """The same error with the file named."""
        return EventFileError(self.message, line=self.line, board=self.board, path=path)
