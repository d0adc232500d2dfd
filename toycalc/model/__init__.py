"""The numbers: one numpy GPT (gpt.py) and what it runs on, the configs, the
tokenizer, the weights files and nano-gpt's training. Knows no page."""
