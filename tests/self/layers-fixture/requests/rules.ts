import { spec } from '../spec/index.ts';

export type Rule = string;
export const rules: Rule[] = [spec];
