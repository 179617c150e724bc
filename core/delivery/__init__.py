"""After the push: the item's pull request (pr.py), GitHub through gh (gh.py), the Delivery Office (watch.py)."""
