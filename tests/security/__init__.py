"""The standing attack suite (issue 14): fairness, floods, guessing, hostile input; bounded in
time."""
