"""What the TD watches: the dashboard, the room view, the movement pages."""
