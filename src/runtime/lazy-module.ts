/**
 * Something loaded on first use (a dynamic `import()` of an optional dependency or of a route
 * family's code: idle memory, #13): the first caller starts the load, later ones share it; a load
 * that failed is started again by the next caller instead of failing for good. Depends on nothing,
 * so every layer may use it (src/crypto and src/login too, which may not import src/api).
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
