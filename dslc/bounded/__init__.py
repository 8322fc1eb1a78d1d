"""Pufferfish privacy of hidden Markov models and MDPs (`hmm` / `mdp` blocks)."""
