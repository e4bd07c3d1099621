/** Text made safe inside HTML element content and quoted attribute values (pages and emails). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
