"""Safety: redaction, URL policy, consent and path rules that hold on every path."""
