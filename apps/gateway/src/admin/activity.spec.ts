import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { AdminDryRunsController } from './admin-dry-runs.controller';
import { AdminMessagesController } from './admin-messages.controller';
import { AdminOperatorsController } from './admin-operators.controller';
import { AdminPartnersController } from './admin-partners.controller';
import { declaresActivity } from './activity';

const ADMIN_CONTROLLERS = [
  AdminMessagesController,
  AdminPartnersController,
  AdminOperatorsController,
  AdminDryRunsController,
];

/** Every route handler of a controller with its HTTP method. */
const routes = (controller: { prototype: object; name: string }) =>
  Object.getOwnPropertyNames(controller.prototype)
    .map((name) => ({ name: `${controller.name}.${name}`, handler: Reflect.get(controller.prototype, name) as object }))
    .filter(({ handler }) => Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
    .map((route) => ({ ...route, method: Reflect.getMetadata(METHOD_METADATA, route.handler) as RequestMethod }));

describe('the activity log', () => {
  it('hears of every admin route that can change something: each says what it records, or that it changes nothing', () => {
    const writes = ADMIN_CONTROLLERS.flatMap(routes).filter((route) => route.method !== RequestMethod.GET);
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.filter((route) => !declaresActivity(route.handler)).map((route) => route.name)).toEqual([]);
  });
});
