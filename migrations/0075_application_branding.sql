-- Application branding: how an application presents itself to the people it sends to Portico's own
-- pages (the share page, the consent page) and to the widget. `null` means none: the pages show the
-- workspace's name and Portico's neutral colours. Shape (validated by src/domain/branding.ts):
-- {"display_name": text|null, "logo_url": https URL or bounded data: image|null, "accent_color": "#rrggbb"|null}.
alter table applications add column branding jsonb;
