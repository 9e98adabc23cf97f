"""Limits against abuse: guessing and flooding (``ratelimit``), and slow, idle or
oversized HTTP requests below the routes (``http_limits``)."""
