"""Actions on a page: turning what an agent asks for into CDP input."""
