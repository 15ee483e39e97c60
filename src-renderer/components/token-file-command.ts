/**
 * The shell command that prints the app's token file where the data dir is by default, for the
 * sign-in screen's hint. `~` is expanded by the shell only outside quotes ("~/…" names a folder
 * called `~`, and `cat` said "No such file or directory"), so it stays outside them; the rest is
 * quoted where it has a space.
 */
export function tokenFileCommand(platform: string): string {
  const p = platform.toLowerCase();
  if (p.startsWith('mac')) return 'cat ~/"Library/Application Support/benchdesk/api-token"';
  if (p.startsWith('win')) return 'type "%APPDATA%\\benchdesk\\api-token"';
  return 'cat ~/.config/benchdesk/api-token';
}

/** The same data dir, as the hint's text names it. */
export function defaultDataDirText(platform: string): string {
  const p = platform.toLowerCase();
  if (p.startsWith('mac')) return '~/Library/Application Support/benchdesk';
  if (p.startsWith('win')) return '%APPDATA%\\benchdesk';
  return '~/.config/benchdesk';
}
