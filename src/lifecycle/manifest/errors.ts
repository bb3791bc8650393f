// Errors of rendering a module manifest: the Manifest goes to Error with reason InvalidManifest.
export class RenderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RenderError';
  }
}
