/** Which dropped or chosen files Import reads; the import itself is loaded when first used (transferActions.ts). */

/** Whether a file is one Import reads (a .json or .zip export), by its name or type. */
export function isExportFile(file: Pick<File, 'name' | 'type'>): boolean {
  return /\.(json|zip)$/i.test(file.name) || ['application/json', 'application/zip', 'application/x-zip-compressed'].includes(file.type);
}
