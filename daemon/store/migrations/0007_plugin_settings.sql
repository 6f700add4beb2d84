-- Settings of plugins (the dashboard's Settings › Plugins page): one JSON
-- object per namespace, kept here and never in the config file. revision
-- counts the writes, so a client that read an older revision cannot
-- overwrite a newer one (SetPluginSettings).
CREATE TABLE plugin_settings (
  namespace TEXT NOT NULL PRIMARY KEY,
  settings TEXT NOT NULL,
  revision INTEGER NOT NULL
) STRICT;
