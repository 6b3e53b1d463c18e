"""The durable queue: the bot's database (the only SQL), deliveries turned into jobs, the worker process."""
