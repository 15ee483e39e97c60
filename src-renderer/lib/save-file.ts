import type { RendererApi } from '../bridge';

/**
 * Saves text the user exports: through the native save dialog in the app (the path chosen, or
 * null when cancelled), or as a download in browser mode (the file name).
 */
export async function saveText(api: Pick<RendererApi, 'desktop'>, name: string, content: string, mime: string): Promise<string | null> {
  if (api.desktop) {
    const { path } = await api.desktop.saveFile({ suggested_name: name, content });
    return path;
  }
  const url = URL.createObjectURL(new Blob([content], { type: `${mime};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return name;
}
