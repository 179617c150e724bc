"""`hall demo`: a throwaway repository driven through the real loop by the stand-in model."""
