"""The supervisor: what blocks or hides things from an agent, watched on the session's socket."""
