-- The model entry a session was switched to (ConfigureSession), overriding
-- its agent's model; '' = the agent's own model.
ALTER TABLE sessions ADD COLUMN model TEXT NOT NULL DEFAULT '';
