// esbuild bundles the stylesheet into dist/visualizer/page.css.
declare module '*.css';
