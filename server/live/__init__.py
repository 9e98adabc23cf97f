"""The running server: what one app holds (``runtime``), the table desk that every table
command comes in through (``table_desk``), and the pushes to the screens watching a
section, in one process (``bus``) and between workers (``notify``)."""
