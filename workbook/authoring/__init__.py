"""Authoring the course: starter generation, the cases' compiled form, the validity gate and bank, the demo."""
