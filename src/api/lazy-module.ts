/**
 * Something loaded on first use (a dynamic `import()` of a route family's code, #13): the first
 * caller starts the load, later ones share it; a load that failed is started again by the next
 * caller instead of failing for good.
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
